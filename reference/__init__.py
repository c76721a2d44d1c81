"""Reference implementations that cross-check the C++ harness (see python/)."""
