// Tests for RelayFixture arrive with the issue that builds it.
