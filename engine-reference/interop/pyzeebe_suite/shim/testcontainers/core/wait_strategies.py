"""The wait strategy pyzeebe's conftest configures; the local engine is ready
once it prints its listening line, so there is nothing to wait for."""


class LogMessageWaitStrategy:
    def __init__(self, message, *args, **kwargs):
        self.message = message

    def with_startup_timeout(self, seconds):
        return self
