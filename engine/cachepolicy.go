package engine

import "errors"

// CachePolicy decides whether a run serves unchanged replayed cases from
// the workspace cache (mcptest run's --cache and --no-cache).
type CachePolicy struct {
	// Force asks for the cache on CI too; Off turns it off; CI is the run
	// happening on CI, where the cache is off unless forced, since the
	// checkout a CI job gates may carry a cache of its own.
	Force, Off, CI bool
	// Build is the build's cache key (stamp.Build.CacheKey), "" when the
	// build cannot identify itself; it is asked only for a wanted cache.
	Build func() string
	// Dir is the cache's directory, or why there is none.
	Dir func() (string, error)
}

// Open returns the cache and the build key for Options.Cache and
// Options.Build: a DirCache when the cache is wanted and can be had; nil
// and no error when it is not wanted; nil and the reason when it is
// wanted but cannot be had.
func (p CachePolicy) Open() (CaseCache, string, error) {
	if !p.Wanted() {
		return nil, "", nil
	}
	build := p.Build()
	if build == "" {
		return nil, "", errors.New("this build cannot identify itself (its executable is unreadable)")
	}
	dir, err := p.Dir()
	if err != nil {
		return nil, "", err
	}
	return DirCache{Dir: dir}, build, nil
}

// Wanted reports whether the policy asks for the cache (Open then opens
// it, or says why it cannot): not turned off, and forced or off CI.
func (p CachePolicy) Wanted() bool { return !p.Off && (p.Force || !p.CI) }
