package feel

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// Date is a FEEL date (no time, no zone): date("2024-03-01"),
// date(2024, 3, 1). Dates compare with each other (<, =, ranges, input
// entries), have .year, .month, .day and .weekday, and become the string
// "2024-03-01" as a variable, as in Zeebe. Times, date-times and durations
// are not supported.
type Date struct{ Y, M, D int }

func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.Y, d.M, d.D) }

func (d Date) time() time.Time { return time.Date(d.Y, time.Month(d.M), d.D, 0, 0, 0, 0, time.UTC) }

func (d Date) cmp(o Date) int {
	switch {
	case d.Y != o.Y:
		return sign(d.Y - o.Y)
	case d.M != o.M:
		return sign(d.M - o.M)
	}
	return sign(d.D - o.D)
}

func sign(n int) int {
	switch {
	case n < 0:
		return -1
	case n > 0:
		return 1
	}
	return 0
}

var dateText = regexp.MustCompile(`^(-?\d{4,9})-(\d{2})-(\d{2})$`)

// makeDate checks the calendar (2023-02-29 is not a date: null).
func makeDate(y, m, d int64) (any, bool) {
	if y < -999999999 || y > 999999999 || m < 1 || m > 12 || d < 1 || d > 31 {
		return nil, false
	}
	t := time.Date(int(y), time.Month(m), int(d), 0, 0, 0, 0, time.UTC)
	if t.Year() != int(y) || int64(t.Month()) != m || int64(t.Day()) != d {
		return nil, false
	}
	return Date{int(y), int(m), int(d)}, true
}

// dateBuiltins is added to the built-ins by addCollectionBuiltins.
var dateBuiltins = map[string]builtin{
	"date": {1, 3, func(e *env, a []node) (any, error) {
		vs, err := evalAll(e, a)
		if err != nil {
			return nil, err
		}
		if len(vs) == 2 {
			return nil, nil
		}
		if len(vs) == 3 {
			var n [3]int64
			for i, v := range vs {
				x, ok := smallInt(v)
				if !ok {
					return nil, nil
				}
				n[i] = x
			}
			d, _ := makeDate(n[0], n[1], n[2])
			return d, nil
		}
		switch x := vs[0].(type) {
		case Date:
			return x, nil
		case string:
			m := dateText.FindStringSubmatch(x)
			if m == nil {
				return nil, nil
			}
			y, _ := strconv.ParseInt(m[1], 10, 64)
			mo, _ := strconv.ParseInt(m[2], 10, 64)
			d, _ := strconv.ParseInt(m[3], 10, 64)
			v, _ := makeDate(y, mo, d)
			return v, nil
		}
		return nil, nil
	}},
}
