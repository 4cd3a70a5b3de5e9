package hookmodule

// legacySums are the modules logwatch wrote before modules carried their
// sum (SumLine), by legacySum: each text pi's, omp's and OpenCode's Source
// gave at the commits that changed one (4cc041c, 8a14912, 3cb834e, 240be0a,
// 715e885). Such a file, untouched, is still logwatch's to update; no
// release after them needs a line here.
var legacySums = map[string]bool{
	"e565455eecdb42f10c39692ab59bc2b5035d9435d369bc7c15ad6f084f4c6b0d": true, // pi, 4cc041c
	"365366dfb4b993d34a65784b1d97ecce4ebdf48d05ca7727dcad7c72df5e86c0": true, // omp, 8a14912
	"e5e5a25bc44fbf52c15613a39ea52941e363480779f63c89998b6e2d4ba46bbd": true, // pi, 3cb834e
	"9395c8ef28c14ac003b1809db722ee605bfedab15c6eee9f57eefbf4268a6256": true, // omp, 3cb834e
	"f4e44c478d2171fd204d724beb49ca522127f6f62cb362fc48d431c7549033c2": true, // opencode, 240be0a
	"9788f94e9bbe629fe0761b3e8aaa8225e9221ea16be88b9632fc1779135d3d1d": true, // opencode, 715e885
}
