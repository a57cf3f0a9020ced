// Benchmarks arrive with the benchmarks issue.
print("nostr-push-bench: no benchmarks yet")
