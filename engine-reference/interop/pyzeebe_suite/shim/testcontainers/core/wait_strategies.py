"""The wait strategy pyzeebe's conftest configures; DockerContainer.start
waits for the local engine itself (its ready line, then a SERVING health
check), so there is nothing to configure."""


class LogMessageWaitStrategy:
    def __init__(self, message, *args, **kwargs):
        self.message = message

    def with_startup_timeout(self, seconds):
        return self
