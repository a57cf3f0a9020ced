// Tests for EnrichmentCache arrive with the issue that builds it.
