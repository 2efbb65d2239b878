"""Generated gRPC stubs for gateway.proto (do not edit; run make generate)."""
