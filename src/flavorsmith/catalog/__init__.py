"""The hardware catalog: device-types and flavors in a GitOps catalog repository."""
