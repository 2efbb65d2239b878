package jobwire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Handler handles one job; its result maps to the outcome as HandlerFunc's
// does. Handle and HandleWithHeaders build typed handlers; a HandlerFunc is a
// Handler too. Register handlers on a Mux.
type Handler interface {
	HandleJob(ctx context.Context, job *Job) (any, error)
}

// HandleJob calls f(ctx, job).
func (f HandlerFunc) HandleJob(ctx context.Context, job *Job) (any, error) { return f(ctx, job) }

// typedHandler is what Handle and HandleWithHeaders return: the decoding
// handler and the variables its input type names.
type typedHandler struct {
	fn    HandlerFunc
	fetch []string
}

func (h *typedHandler) HandleJob(ctx context.Context, job *Job) (any, error) { return h.fn(ctx, job) }

// fetchVariablesOf returns the variable names a handler's input type derives
// (nil: all variables).
func fetchVariablesOf(h Handler) []string {
	if t, ok := h.(*typedHandler); ok {
		return t.fetch
	}
	return nil
}

// Handle returns a typed handler: the job's variables are decoded into In
// before fn runs, and fn's Out completes the job (a struct, a map, or nil for
// no variables; serialized as a handler's return value, losslessly).
//
// The worker fetches only the variables In names (its exported fields by json
// name, embedded structs flattened) and traceparent, the job span's parent,
// unless WithFetchVariables is set (then exactly those); with In a map, any or
// json.RawMessage it fetches all.
//
// Input that does not decode (a JSON value of the wrong type for a field) or
// that fails In's Validate method (if In or *In has `Validate() error`) never
// reaches fn: the job fails with an *InvalidInputError naming the field,
// through the retry policy like any handler error. Missing fields stay zero
// values: check required fields in Validate.
//
//	type Order struct {
//		OrderID string  `json:"orderId"`
//		Amount  float64 `json:"amount"`
//	}
//	type Receipt struct {
//		OrderID string  `json:"orderId"`
//		Total   float64 `json:"total"`
//	}
//	mux.Register("payment", jobwire.Handle(func(ctx context.Context, job *jobwire.Job, in Order) (Receipt, error) {
//		return Receipt{OrderID: in.OrderID, Total: in.Amount * 2}, nil
//	}))
func Handle[In, Out any](fn func(ctx context.Context, job *Job, in In) (Out, error)) Handler {
	return &typedHandler{fetch: deriveFetchVariables(reflect.TypeFor[In]()), fn: func(ctx context.Context, job *Job) (any, error) {
		var in In
		if err := decodeInput(job.VariablesJSON(), &in, ""); err != nil {
			return nil, err
		}
		return fn(ctx, job, in)
	}}
}

// HandleWithHeaders is Handle with the task's custom headers decoded into H
// (a struct of string fields by json name, or a map of strings). Headers
// that do not decode fail the job like invalid input, the field named
// "headers.<name>".
func HandleWithHeaders[In, H, Out any](fn func(ctx context.Context, job *Job, in In, headers H) (Out, error)) Handler {
	return &typedHandler{fetch: deriveFetchVariables(reflect.TypeFor[In]()), fn: func(ctx context.Context, job *Job) (any, error) {
		var in In
		if err := decodeInput(job.VariablesJSON(), &in, ""); err != nil {
			return nil, err
		}
		var h H
		raw := job.raw.GetCustomHeaders()
		if strings.TrimSpace(raw) == "" {
			raw = "{}"
		}
		if err := decodeInput(json.RawMessage(raw), &h, "headers"); err != nil {
			return nil, err
		}
		return fn(ctx, job, in, h)
	}}
}

// InvalidInputError is the failure of a typed handler whose input does not
// match its type; the handler was not called. Its message, the job's error
// message, is "jobwire: invalid input: <field>: <problem>" (without the field
// for an error from a Validate method).
type InvalidInputError struct {
	Field   string // the variable, dotted for nested fields (order.amount); "" for Validate errors
	Problem string // e.g. "expected number, got string"
	Err     error  // the decoding or Validate error
}

// Error returns the job's error message: "jobwire: invalid input: <field>: <problem>".
func (e *InvalidInputError) Error() string {
	if e.Field == "" {
		return "jobwire: invalid input: " + e.Problem
	}
	return "jobwire: invalid input: " + e.Field + ": " + e.Problem
}

// Unwrap returns the decoding or Validate error.
func (e *InvalidInputError) Unwrap() error { return e.Err }

// decodeInput decodes data into v (numbers in `any` as json.Number), then
// runs v's Validate method; errors become *InvalidInputError, fields prefixed
// with prefix.
func decodeInput(data []byte, v any, prefix string) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		e := &InvalidInputError{Problem: err.Error(), Err: err}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			e.Field = te.Field
			e.Problem = fmt.Sprintf("expected %s, got %s", jsonKind(te.Type), te.Value)
		}
		if prefix != "" {
			e.Field = strings.TrimSuffix(prefix+"."+e.Field, ".")
		}
		return e
	}
	if val, ok := v.(interface{ Validate() error }); ok {
		return validateErr(val.Validate(), prefix)
	}
	// In itself a pointer (or interface) type: its value may have the method.
	if rv := reflect.ValueOf(v).Elem(); rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		if val, ok := rv.Interface().(interface{ Validate() error }); ok && !rv.IsNil() {
			return validateErr(val.Validate(), prefix)
		}
	}
	return nil
}

func validateErr(err error, prefix string) error {
	if err == nil {
		return nil
	}
	var ie *InvalidInputError
	if errors.As(err, &ie) {
		return ie
	}
	return &InvalidInputError{Field: prefix, Problem: err.Error(), Err: err}
}

// jsonKind names the JSON type a Go type decodes from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		if t.Kind() != reflect.Float32 && t.Kind() != reflect.Float64 {
			return "integer"
		}
		return "number"
	case reflect.Struct, reflect.Map:
		return "object"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return t.String()
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// deriveFetchVariables returns the top-level variable names a struct type
// decodes (exported fields by json name, "-" skipped, embedded structs
// flattened), then traceparent unless named already; nil for other types and
// for a struct without fields (all variables).
func deriveFetchVariables(t reflect.Type) []string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct || t == rawMessageType {
		return nil
	}
	var names []string
	seen := map[string]bool{}
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if f.Anonymous && name == "" && ft.Kind() == reflect.Struct && depth < 10 {
				walk(ft, depth+1) // promoted fields, as encoding/json decodes them
				continue
			}
			if !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
		}
	}
	walk(t, 0)
	if len(names) > 0 && !seen[traceparentVariable] {
		names = append(names, traceparentVariable) // a derived list keeps the job span's parent
	}
	return names
}

// traceparentVariable is the W3C trace context variable a job span takes its
// parent from (Telemetry): a derived fetchVariables list names it too, so a
// typed worker does not cut the trace. Struct decoding ignores it.
const traceparentVariable = "traceparent"
