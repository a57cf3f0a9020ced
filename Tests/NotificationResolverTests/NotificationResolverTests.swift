// Tests for NotificationResolver arrive with the issue that builds it.
