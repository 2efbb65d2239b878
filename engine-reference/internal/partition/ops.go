package partition

// Operations on deployed resources and running instances beyond the basic
// gateway calls: DeleteResource (deletion.go), ModifyProcessInstance
// (modify.go), MigrateProcessInstance (migrate.go) and the start
// instructions of CreateProcessInstance (startinstr.go).

// Operation names.
const (
	OpDeleteResource = "delresource"
	OpModify         = "modify"
	OpMigrate        = "migrate"
)

func init() {
	for _, op := range []string{OpDeleteResource, OpModify, OpMigrate} {
		WireOps[op] = true
	}
	intents[OpDeleteResource] = "DELETE"
	intents[OpModify] = "MODIFY"
	intents[OpMigrate] = "MIGRATE"
}

// OpsArgs are the arguments of these commands (Command.Ops).
type OpsArgs struct {
	// delresource: only check that no instance of the definition runs on
	// this partition (nothing changes); Distributed: partition 1 deleted
	// the resource already (an unknown key is not an error then).
	CheckOnly   bool `json:"check,omitempty"`
	Distributed bool `json:"dist,omitempty"`

	// modify
	Activate  []ActivateArg `json:"act,omitempty"`
	Terminate []int64       `json:"term,omitempty"`

	// migrate
	TargetDefKey int64        `json:"target,omitempty"`
	Mappings     []MappingArg `json:"map,omitempty"`

	// create: start before these elements instead of the none start event
	StartAt []string `json:"start,omitempty"`
}

// ActivateArg is one activate instruction of ModifyProcessInstance.
type ActivateArg struct {
	ElementID string        `json:"el"`
	Ancestor  int64         `json:"anc,omitempty"`
	Variables []VariableArg `json:"vars,omitempty"`
}

// VariableArg sets local variables on the instance of ScopeID (empty: the
// process instance, as in Zeebe).
type VariableArg struct {
	ScopeID   string `json:"scope,omitempty"`
	Variables string `json:"v"`
}

// MappingArg maps a source element to a target element.
type MappingArg struct {
	Source string `json:"s"`
	Target string `json:"t"`
}

// dispatchOps handles the commands of this file's family; ok is false for
// any other op.
func (p *Partition) dispatchOps(c *Command, fx *effects) (resp any, err error, ok bool) {
	switch c.Op {
	case OpDeleteResource:
		resp, err = p.deleteResource(c, fx)
	case OpModify:
		resp, err = p.modify(c, fx)
	case OpMigrate:
		resp, err = p.migrate(c, fx)
	default:
		return nil, nil, false
	}
	return resp, err, true
}
