// The EnrichmentCache module. Its types arrive with the issue that builds it.
