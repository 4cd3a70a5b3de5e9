package copilot_test

import (
	"testing"

	"github.com/logwatch/logwatch/conformance"
)

// TestMain runs the suite's set-up and summary around this agent's scenarios
// (the scenario files dot-import the suite: NewScenario, Step, the fakes):
// one test binary per agent, so each has go test's whole time budget.
func TestMain(m *testing.M) { conformance.Main(m) }
