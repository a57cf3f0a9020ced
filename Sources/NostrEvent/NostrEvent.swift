// The NostrEvent module. Its types arrive with the issue that builds it.
