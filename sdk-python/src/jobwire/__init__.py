"""jobwire: job-worker SDK for the Zeebe / Camunda 8 gateway gRPC protocol.

Early skeleton. What exists: the generated gateway protocol stubs in
``jobwire._proto`` (private; used by the SDK and its tests). The worker API
(Client, Worker, Job, ...) is not implemented yet.
"""

__version__ = "0.1.0.dev0"

__all__ = ["__version__"]
