package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/mcptest/mcptest/engine/cassette"
	"github.com/mcptest/mcptest/engine/diag"
)

// eachCassette reads a case's cassette files one at a time, in order, and
// hands each readable one to use, so no more than one cassette is held at
// once. It fills res.Model from the first cassette and res.Cassettes with
// the file count and a digest over the files' suite-relative paths and
// contents, res.Tools with the tools the recordings offered and called, and
// returns every file that could not be read as positioned
// errors.
func eachCassette(s *Suite, p casePlan, res *CaseResult, progress func(), use func(*cassette.Cassette)) diag.List {
	var errs diag.List
	digest := sha256.New()
	tools := toolTally{}
	for _, f := range p.files {
		data, err := cassette.Load(f, displayPath(f))
		if err != nil {
			errs = append(errs, asDiag(displayPath(f), err)...)
			progress()
			continue
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(digest, "%s\x00%s\n", suiteRelative(s, f), hex.EncodeToString(sum[:]))
		cas, err := cassette.Read(displayPath(f), data)
		progress()
		if err != nil {
			errs = append(errs, asDiag(displayPath(f), err)...)
			continue
		}
		if res.Model == "" {
			res.Model = cas.Model
		}
		tools.addCassette(cas)
		use(cas)
	}
	res.Cassettes = &CassetteSet{Files: len(p.files), SHA256: hex.EncodeToString(digest.Sum(nil))}
	res.Tools = tools.list()
	return errs
}
