from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class ReleaseUnreadRequest(_message.Message):
    __slots__ = ["messages_read", "stream_id"]
    MESSAGES_READ_FIELD_NUMBER: _ClassVar[int]
    STREAM_ID_FIELD_NUMBER: _ClassVar[int]
    messages_read: int
    stream_id: str
    def __init__(self, stream_id: _Optional[str] = ..., messages_read: _Optional[int] = ...) -> None: ...

class ReleaseUnreadResponse(_message.Message):
    __slots__ = ["messages_sent", "released"]
    MESSAGES_SENT_FIELD_NUMBER: _ClassVar[int]
    RELEASED_FIELD_NUMBER: _ClassVar[int]
    messages_sent: int
    released: int
    def __init__(self, messages_sent: _Optional[int] = ..., released: _Optional[int] = ...) -> None: ...
