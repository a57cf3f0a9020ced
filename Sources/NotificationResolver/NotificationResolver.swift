// The NotificationResolver module. Its types arrive with the issue that builds it.
