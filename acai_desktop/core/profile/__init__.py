"""A profile: where it lives, its lock, its store's place, and others' writes."""
