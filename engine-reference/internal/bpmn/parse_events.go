package bpmn

import (
	"encoding/xml"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/jobwire/jobwire/engine-reference/internal/feel"
)

// Message and timer events: message start events, timer start events,
// intermediate message and timer catch events, receive tasks, and message
// and timer boundary events (interrupting or not) on service and receive
// tasks.

// Event definition types.
const (
	EventMessage = "message"
	EventTimer   = "timer"
)

// Timer kinds (the child of bpmn:timerEventDefinition).
const (
	TimerDuration = "timeDuration"
	TimerDate     = "timeDate"
	TimerCycle    = "timeCycle"
)

// EventDef is the message or timer definition of an event or receive task.
type EventDef struct {
	Type string // EventMessage or EventTimer

	// Message: name and correlation key, each a literal or "= expression"
	// (evaluated when the subscription opens).
	MessageName        string
	MessageNameExpr    *feel.Expr
	CorrelationKey     string
	CorrelationKeyExpr *feel.Expr

	// Timer: kind and value (ISO-8601), or an expression giving the value.
	TimerKind string
	TimerText string
	TimerExpr *feel.Expr

	// Signal (parse_signals.go): the name, a literal or "= expression"
	// (evaluated when the event is entered).
	SignalName     string
	SignalNameExpr *feel.Expr
}

// synthetic attributes set on message event definitions and receive tasks
// by resolveMessageRefs (the bpmn:message they reference).
const (
	attrMsgName = "\x00jobwire-message-name"
	attrMsgKey  = "\x00jobwire-message-key"
	attrMsgOK   = "\x00jobwire-message-ok"
)

// resolveMessageRefs copies the name and zeebe:subscription correlationKey
// of each bpmn:message onto the elements that reference it, so element
// parsing needs no extra context.
func resolveMessageRefs(root *xnode) {
	type msg struct{ name, key string }
	msgs := map[string]msg{}
	for _, c := range root.Children {
		if c.Name.Space == nsBPMN && c.Name.Local == "message" {
			m := msg{name: c.Attr("name")}
			for _, e := range c.Children {
				if e.Name.Space == nsBPMN && e.Name.Local == "extensionElements" {
					for _, z := range e.Children {
						if z.Name.Space == nsZeebe && z.Name.Local == "subscription" {
							m.key = z.Attr("correlationKey")
						}
					}
				}
			}
			msgs[c.Attr("id")] = m
		}
	}
	var walk func(n *xnode)
	walk = func(n *xnode) {
		if n.Name.Space == nsBPMN && (n.Name.Local == "messageEventDefinition" || n.Name.Local == "receiveTask") {
			if m, ok := msgs[n.Attr("messageRef")]; ok {
				n.Attrs = append(n.Attrs,
					xmlAttr(attrMsgName, m.name), xmlAttr(attrMsgKey, m.key), xmlAttr(attrMsgOK, "1"))
			}
		}
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(root)
}

func xmlAttr(name, value string) xml.Attr {
	return xml.Attr{Name: xml.Name{Local: name}, Value: value}
}

// parseMessageRef builds the message part of an event definition from the
// attributes resolveMessageRefs attached to n (a messageEventDefinition or
// a receiveTask).
func parseMessageRef(res, what string, el *Element, n *xnode, needKey bool) (*EventDef, error) {
	if n.Attr(attrMsgOK) == "" {
		return nil, errf("'%s': %s '%s' at line %d must reference a bpmn:message (messageRef '%s' is not defined)", res, what, el.ID, n.Line, n.Attr("messageRef"))
	}
	d := &EventDef{Type: EventMessage}
	name := strings.TrimSpace(n.Attr(attrMsgName))
	if name == "" {
		return nil, errf("'%s': %s '%s' at line %d: the referenced bpmn:message '%s' must have a name", res, what, el.ID, n.Line, n.Attr("messageRef"))
	}
	if strings.HasPrefix(name, "=") {
		x, err := feel.Compile(name)
		if err != nil {
			return nil, errf("'%s': %s '%s' at line %d: invalid message name expression '%s': %v", res, what, el.ID, n.Line, name, err)
		}
		d.MessageNameExpr = x
	}
	d.MessageName = name
	key := strings.TrimSpace(n.Attr(attrMsgKey))
	if needKey && key == "" {
		return nil, errf("'%s': %s '%s' at line %d: the bpmn:message '%s' needs a zeebe:subscription with a correlationKey", res, what, el.ID, n.Line, n.Attr("messageRef"))
	}
	if strings.HasPrefix(key, "=") {
		x, err := feel.Compile(key)
		if err != nil {
			return nil, errf("'%s': %s '%s' at line %d: invalid correlation key expression '%s': %v", res, what, el.ID, n.Line, key, err)
		}
		d.CorrelationKeyExpr = x
	}
	d.CorrelationKey = key
	return d, nil
}

// parseTimerDef reads a bpmn:timerEventDefinition. allowed lists the timer
// kinds valid for the event (Zeebe: start events take date or cycle,
// intermediate events a duration or date, boundary events all three).
func parseTimerDef(res, what string, el *Element, n *xnode, allowed ...string) (*EventDef, error) {
	var found []*xnode
	for _, c := range n.Children {
		if c.Name.Space == nsBPMN && (c.Name.Local == TimerDuration || c.Name.Local == TimerDate || c.Name.Local == TimerCycle) {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		return nil, errf("'%s': %s '%s' at line %d: a bpmn:timerEventDefinition needs exactly one of bpmn:timeDuration, bpmn:timeDate, bpmn:timeCycle (found %d)", res, what, el.ID, n.Line, len(found))
	}
	t := found[0]
	ok := false
	for _, a := range allowed {
		ok = ok || a == t.Name.Local
	}
	if !ok {
		return nil, errf("'%s': %s '%s' at line %d: bpmn:%s is not allowed here (allowed: %s)", res, what, el.ID, t.Line, t.Name.Local, strings.Join(allowed, ", "))
	}
	d := &EventDef{Type: EventTimer, TimerKind: t.Name.Local, TimerText: strings.TrimSpace(t.Text.String())}
	if d.TimerText == "" {
		return nil, errf("'%s': %s '%s' at line %d: bpmn:%s is empty", res, what, el.ID, t.Line, t.Name.Local)
	}
	if strings.HasPrefix(d.TimerText, "=") {
		x, err := feel.Compile(d.TimerText)
		if err != nil {
			return nil, errf("'%s': %s '%s' at line %d: invalid timer expression '%s': %v", res, what, el.ID, t.Line, d.TimerText, err)
		}
		d.TimerExpr = x
		return d, nil
	}
	if _, err := ParseTimer(d.TimerKind, d.TimerText, time.Unix(0, 0)); err != nil {
		return nil, errf("'%s': %s '%s' at line %d: invalid bpmn:%s '%s': %v", res, what, el.ID, t.Line, d.TimerKind, d.TimerText, err)
	}
	return d, nil
}

// parseEventElement handles the elements of this file: start events with a
// message or timer definition, intermediate catch events, receive tasks and
// message/timer boundary events. handled is false for anything else.
func parseEventElement(res string, c *xnode, el *Element, eventDefs []*xnode) (handled bool, err error) {
	if handled, err := parseSignalElement(res, c, el, eventDefs); handled {
		return true, err
	}
	switch c.Name.Local {
	case "startEvent":
		if len(eventDefs) != 1 {
			return false, nil
		}
		switch eventDefs[0].Name.Local {
		case "messageEventDefinition":
			d, err := parseMessageRef(res, "message start event", el, eventDefs[0], false)
			if err != nil {
				return true, err
			}
			if d.MessageNameExpr != nil {
				return true, errf("'%s': message start event '%s' at line %d: the message name must be a literal (it is needed at deploy time)", res, el.ID, c.Line)
			}
			el.Kind, el.Event = StartEvent, d
			return true, nil
		case "timerEventDefinition":
			d, err := parseTimerDef(res, "timer start event", el, eventDefs[0], TimerDate, TimerCycle)
			if err != nil {
				return true, err
			}
			if d.TimerExpr != nil {
				return true, errf("'%s': timer start event '%s' at line %d: the timer must be a literal ISO-8601 date or cycle", res, el.ID, c.Line)
			}
			el.Kind, el.Event = StartEvent, d
			return true, nil
		}
		return false, nil
	case "intermediateCatchEvent":
		if len(eventDefs) != 1 {
			return true, errf("'%s': bpmn:intermediateCatchEvent '%s' at line %d needs exactly one message, timer or signal event definition", res, el.ID, c.Line)
		}
		el.Kind = IntermediateCatchEvent
		switch eventDefs[0].Name.Local {
		case "messageEventDefinition":
			el.Event, err = parseMessageRef(res, "intermediate message catch event", el, eventDefs[0], true)
		case "timerEventDefinition":
			el.Event, err = parseTimerDef(res, "intermediate timer catch event", el, eventDefs[0], TimerDuration, TimerDate)
		default:
			err = errf("'%s': bpmn:intermediateCatchEvent '%s' at line %d: %s is not supported (supported: message, timer, signal)", res, el.ID, c.Line, prefixed(eventDefs[0]))
		}
		return true, err
	case "receiveTask":
		if len(eventDefs) > 0 {
			return true, unsupported(res, eventDefs[0])
		}
		el.Kind = ReceiveTask
		el.Event, err = parseMessageRef(res, "receive task", el, c, true)
		return true, err
	case "boundaryEvent":
		if len(eventDefs) != 1 {
			return false, nil
		}
		el.Interrupting = c.Attr("cancelActivity") != "false"
		switch eventDefs[0].Name.Local {
		case "messageEventDefinition":
			el.Kind = BoundaryEvent
			el.AttachedTo = c.Attr("attachedToRef")
			el.Event, err = parseMessageRef(res, "message boundary event", el, eventDefs[0], true)
			return true, err
		case "timerEventDefinition":
			el.Kind = BoundaryEvent
			el.AttachedTo = c.Attr("attachedToRef")
			allowed := []string{TimerDuration, TimerDate}
			if !el.Interrupting {
				allowed = append(allowed, TimerCycle)
			}
			el.Event, err = parseTimerDef(res, "timer boundary event", el, eventDefs[0], allowed...)
			return true, err
		}
		return false, nil
	}
	return false, nil
}

// ---- ISO-8601 timers ----

// Timer is a parsed timer value: the first due time, and for cycles the
// interval and how many repetitions there are in all (-1: unbounded).
type Timer struct {
	Due         time.Time
	Interval    time.Duration
	Repetitions int // cycles: total firings (-1 unbounded); otherwise 1
}

// ParseTimer parses a timer definition relative to now.
func ParseTimer(kind, text string, now time.Time) (Timer, error) {
	text = strings.TrimSpace(text)
	switch kind {
	case TimerDuration:
		d, err := ParseDuration(text)
		if err != nil {
			return Timer{}, err
		}
		return Timer{Due: now.Add(d), Repetitions: 1}, nil
	case TimerDate:
		t, err := ParseDate(text)
		if err != nil {
			return Timer{}, err
		}
		return Timer{Due: t, Repetitions: 1}, nil
	case TimerCycle:
		return parseCycle(text, now)
	}
	return Timer{}, fmt.Errorf("unknown timer kind %q", kind)
}

// ParseDate parses an ISO-8601 date-time with an offset or zone (Zeebe
// requires one); a trailing [Zone/Id] is accepted and ignored when an
// offset is present.
func ParseDate(s string) (time.Time, error) {
	base := s
	if i := strings.IndexByte(s, '['); i > 0 && strings.HasSuffix(s, "]") {
		base = s[:i]
		if loc, err := time.LoadLocation(s[i+1 : len(s)-1]); err == nil && !hasOffset(base) {
			t, err := time.ParseInLocation("2006-01-02T15:04:05.999999999", base, loc)
			if err == nil {
				return t, nil
			}
		}
	}
	t, err := time.Parse(time.RFC3339Nano, base)
	if err != nil {
		return time.Time{}, fmt.Errorf("'%s' is not an ISO-8601 date-time with offset (e.g. 2026-01-01T10:00:00Z)", s)
	}
	return t, nil
}

func hasOffset(s string) bool {
	if strings.HasSuffix(s, "Z") {
		return true
	}
	i := strings.LastIndexAny(s, "+-")
	return i > 10
}

// ParseDuration parses an ISO-8601 duration: PnYnMnWnDTnHnMnS (fractional
// seconds allowed; years are 365 days and months 30 days, only for
// durations that use them). Negative durations are refused.
func ParseDuration(s string) (time.Duration, error) {
	bad := fmt.Errorf("'%s' is not an ISO-8601 duration (e.g. PT30S, PT1H, P1DT2H, P2W)", s)
	if len(s) < 3 || (s[0] != 'P' && s[0] != 'p') {
		return 0, bad
	}
	rest := s[1:]
	inTime := false
	total := new(big.Rat)
	seen := false
	for len(rest) > 0 {
		if rest[0] == 'T' || rest[0] == 't' {
			if inTime {
				return 0, bad
			}
			inTime = true
			rest = rest[1:]
			if rest == "" {
				return 0, bad
			}
			continue
		}
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.' || rest[i] == ',') {
			i++
		}
		if i == 0 || i == len(rest) {
			return 0, bad
		}
		num, ok := new(big.Rat).SetString(strings.ReplaceAll(rest[:i], ",", "."))
		if !ok {
			return 0, bad
		}
		unit := rest[i] | 0x20 // lower case
		var secs int64
		switch {
		case !inTime && unit == 'y':
			secs = 365 * 86400
		case !inTime && unit == 'm':
			secs = 30 * 86400
		case !inTime && unit == 'w':
			secs = 7 * 86400
		case !inTime && unit == 'd':
			secs = 86400
		case inTime && unit == 'h':
			secs = 3600
		case inTime && unit == 'm':
			secs = 60
		case inTime && unit == 's':
			secs = 1
		default:
			return 0, bad
		}
		total.Add(total, num.Mul(num, new(big.Rat).SetInt64(secs)))
		seen = true
		rest = rest[i+1:]
	}
	if !seen {
		return 0, bad
	}
	ns := new(big.Rat).Mul(total, new(big.Rat).SetInt64(int64(time.Second)))
	if ns.Cmp(new(big.Rat).SetInt64(int64(100*365*24*time.Hour))) > 0 {
		return 0, fmt.Errorf("'%s' is longer than 100 years", s)
	}
	f, _ := ns.Float64()
	return time.Duration(f), nil
}

// parseCycle parses R[n]/duration or R[n]/start/duration.
func parseCycle(s string, now time.Time) (Timer, error) {
	bad := fmt.Errorf("'%s' is not an ISO-8601 repeating interval (e.g. R3/PT10S, R/PT1M, R2/2026-01-01T10:00:00Z/PT1H); cron expressions are not supported", s)
	parts := strings.Split(s, "/")
	if len(parts) < 2 || len(parts) > 3 || len(parts[0]) < 1 || (parts[0][0] != 'R' && parts[0][0] != 'r') {
		return Timer{}, bad
	}
	reps := -1
	if len(parts[0]) > 1 {
		n, err := strconv.Atoi(parts[0][1:])
		if err != nil || n < 1 {
			return Timer{}, bad
		}
		reps = n
	}
	start := now
	durText := parts[1]
	if len(parts) == 3 {
		t, err := ParseDate(parts[1])
		if err != nil {
			return Timer{}, bad
		}
		start, durText = t, parts[2]
	}
	d, err := ParseDuration(durText)
	if err != nil {
		return Timer{}, err
	}
	if d <= 0 {
		return Timer{}, fmt.Errorf("'%s': the interval must be positive", s)
	}
	due := start
	if len(parts) == 2 {
		due = start.Add(d)
	}
	return Timer{Due: due, Interval: d, Repetitions: reps}, nil
}

// checkEventExtensions refuses zeebe extension elements on event elements
// (other vendors' extensions and zeebe:properties do not change execution).
func checkEventExtensions(res string, c *xnode, el *Element, ext *xnode) error {
	if ext == nil {
		return nil
	}
	for _, e := range ext.Children {
		if e.Name.Space == nsZeebe && e.Name.Local != "properties" {
			return errf("'%s': %s at line %d on %s '%s' is not supported", res, prefixed(e), e.Line, prefixed(c), el.ID)
		}
	}
	return nil
}

// checkMessageStarts: two message start events of one process must not
// share a message name (Zeebe refuses that at deploy).
func checkMessageStarts(res string, p *Process) error {
	seen := map[string]string{}
	for _, el := range p.MessageStarts {
		if other, dup := seen[el.Event.MessageName]; dup {
			return errf("'%s': message start events '%s' and '%s' of process '%s' have the same message name '%s'", res, other, el.ID, p.ID, el.Event.MessageName)
		}
		seen[el.Event.MessageName] = el.ID
	}
	return nil
}
