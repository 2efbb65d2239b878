package partition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"
)

// The cached history encoding must be byte for byte what encoding the
// history gives (snapshots from either path are the same file), on a cold
// cache, a warm one, after evictions, and with empty lists.
func TestHistCacheEncodesLikeJSON(t *testing.T) {
	h := newHistory(3)
	check := func(c *histCache, step string) {
		t.Helper()
		want, err := encodeJSON(h.frozen())
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.encodeHistory(h.frozen())
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%s:\n got %s\nwant %s", step, got, want)
		}
		if !json.Valid(got) {
			t.Fatalf("%s: invalid JSON %s", step, got)
		}
	}
	var c histCache
	check(&c, "empty history")
	add := func(i int) {
		h.addInstance(&Instance{Key: int64(i), BpmnProcessID: "p", State: 2, Vars: map[string]json.RawMessage{
			"x": json.RawMessage(fmt.Sprintf(`{"html":"<a&b>","n":%d}`, i))}, ParentKey: int64(i % 2)})
		h.addJob(&Job{Key: int64(100 + i), InstanceKey: int64(i), Type: "t", State: JobCompleted, ErrorVariables: `{"e":"<>"}`})
	}
	add(1)
	add(2)
	check(&c, "cold cache")
	if len(c.insts) != 2 || len(c.jobs) != 2 {
		t.Fatalf("cache holds %d instances, %d jobs; want 2, 2", len(c.insts), len(c.jobs))
	}
	// A warm entry is not encoded again: change a cached entry's bytes and
	// see them come back (finished entries never change, so this is only
	// a probe of the cache path).
	first := h.Instances[0]
	c.insts[first] = []byte(`{"probe":1}`)
	got, err := c.encodeHistory(h.frozen())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got, []byte(`{"probe":1}`)) {
		t.Fatal("a cached entry was encoded again")
	}
	delete(c.insts, first)
	for i := 3; i <= 6; i++ {
		add(i)
	}
	check(&c, "after evictions")
	if len(c.insts) != 3 || len(c.jobs) != 3 {
		t.Fatalf("evicted entries stay cached: %d instances, %d jobs; want 3, 3", len(c.insts), len(c.jobs))
	}
	if _, ok := c.insts[first]; ok {
		t.Fatal("an evicted instance is still cached")
	}
}
