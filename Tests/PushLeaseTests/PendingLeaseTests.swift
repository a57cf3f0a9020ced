// Placeholder in the pushrelay branch until the lease branch commits its tests; delete on merge.
