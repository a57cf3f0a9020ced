// End-to-end tests of the built nostr-push binary.
