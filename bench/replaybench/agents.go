package main

// The agents the benchmark reads are registered before it runs.
import _ "github.com/logwatch/logwatch/parsers/all"
