package gemini_test

import (
	"testing"

	"github.com/logwatch/logwatch/conformance"
)

// TestMain runs the suite's set-up and summary around this agent's
// scenarios.
func TestMain(m *testing.M) { conformance.Main(m) }
