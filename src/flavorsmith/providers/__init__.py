"""Provider flavor framework (Octavia style): provider drivers advertise capabilities, operators
build flavor profiles (provider + flavor data) and flavors from them, and consumers resolve a
flavor to its provider and validated metadata at every use."""
