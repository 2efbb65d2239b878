package engine

// EvaluateDecisionMethod is Zeebe's path of the RPC.
const EvaluateDecisionMethod = "/gateway_protocol.Gateway/EvaluateDecision"
