package server_test

// The real agents the tests drive are registered.
import _ "github.com/logwatch/logwatch/parsers/all"
