"""jobwire's own protobuf descriptor pool (written by tools/generate.sh; do not edit).

The generated modules register gateway.proto, stream.proto and admin.proto here instead of in protobuf's
default pool, so jobwire can share an interpreter with another client that registers the same
gateway_protocol messages. Wire names and encodings are unchanged.
"""
from google.protobuf import descriptor_pool

POOL = descriptor_pool.DescriptorPool()
