package main

// Every agent logwatch knows is registered before anything runs.
import _ "github.com/logwatch/logwatch/parsers/all"
