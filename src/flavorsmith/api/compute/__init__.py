"""The Nova-compatible API under /compute."""
