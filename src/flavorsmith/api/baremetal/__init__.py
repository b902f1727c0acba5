"""The Ironic-compatible API under /baremetal."""
