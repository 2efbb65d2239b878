package jobwire

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestErrorTable(t *testing.T) {
	cases := []struct {
		code  codes.Code
		check func(error) bool
	}{
		{codes.ResourceExhausted, func(e error) bool { var x *BackpressureError; return errors.As(e, &x) }},
		{codes.Unavailable, func(e error) bool { var x *UnavailableError; return errors.As(e, &x) }},
		{codes.NotFound, func(e error) bool { var x *NotFoundError; return errors.As(e, &x) }},
		{codes.InvalidArgument, func(e error) bool { var x *InvalidArgumentError; return errors.As(e, &x) }},
		{codes.FailedPrecondition, func(e error) bool { var x *FailedPreconditionError; return errors.As(e, &x) }},
		{codes.AlreadyExists, func(e error) bool { var x *AlreadyExistsError; return errors.As(e, &x) }},
		{codes.DeadlineExceeded, func(e error) bool { var x *DeadlineExceededError; return errors.As(e, &x) }},
		{codes.Canceled, func(e error) bool { var x *RequestCancelledError; return errors.As(e, &x) }},
		{codes.Unauthenticated, func(e error) bool { var x *UnauthenticatedError; return errors.As(e, &x) }},
		{codes.PermissionDenied, func(e error) bool { var x *PermissionDeniedError; return errors.As(e, &x) }},
		{codes.Internal, func(e error) bool { var x *InternalError; return errors.As(e, &x) }},
		{codes.Unimplemented, func(e error) bool { var x *UnimplementedError; return errors.As(e, &x) }},
	}
	for _, c := range cases {
		t.Run(c.code.String(), func(t *testing.T) {
			orig := status.Error(c.code, "boom")
			err := fmt.Errorf("context: %w", wrapError("CompleteJob", orig))
			if !c.check(err) {
				t.Fatalf("%v not mapped to its typed error", c.code)
			}
			var base *Error
			if !errors.As(err, &base) || base.Code != c.code || base.Op != "CompleteJob" || base.Message != "boom" {
				t.Fatalf("base error: %+v", base)
			}
			if !errors.Is(err, orig) {
				t.Fatal("original status error not in the chain")
			}
			if Code(err) != c.code || status.Code(err) != c.code {
				t.Fatalf("Code = %v / status.Code = %v", Code(err), status.Code(err))
			}
		})
	}
	// Exactly one typed error per code.
	var bp *BackpressureError
	if errors.As(wrapError("x", status.Error(codes.Unavailable, "")), &bp) {
		t.Fatal("UNAVAILABLE matched BackpressureError")
	}
	if wrapError("x", nil) != nil || Code(nil) != codes.OK {
		t.Fatal("nil not preserved")
	}
	plain := errors.New("not grpc")
	if w := wrapError("x", plain); !errors.Is(w, plain) {
		t.Fatal("plain error not wrapped with %w")
	}
}

func TestVariablesOverTheLimitAreATypedError(t *testing.T) {
	near := `{"v":"` + strings.Repeat("x", MaxVariablesBytes-8) + `"}`
	if got, err := marshalVariables(near); err != nil || len(got) != MaxVariablesBytes {
		t.Fatalf("variables of exactly the limit: %d bytes, %v", len(got), err)
	}
	_, err := marshalVariables(map[string]string{"v": strings.Repeat("x", MaxVariablesBytes)})
	if !errors.Is(err, ErrVariablesTooLarge) || !errors.Is(err, ErrInvalidVariables) {
		t.Fatalf("want ErrVariablesTooLarge (and ErrInvalidVariables), got %v", err)
	}
	if !strings.Contains(err.Error(), "4 MiB") || !strings.Contains(err.Error(), "bytes of JSON") {
		t.Fatalf("the message does not name the size and limit: %v", err)
	}
}
