// Tests for PushDescriptor arrive with the issue that builds it.
