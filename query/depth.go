package query

import "strings"

// How near the root a file is. A change is made more often in a module's
// main files (a package's root file, the one the others hang from: echo.go
// of echo's middleware/, lua/gitsigns.lua of lua/gitsigns/) than in the
// leaves below them that share its words; among the files a task's text
// matches about as well, the one higher in the tree is the likelier place.
// The lift falls with depth, so in a tree whose sources all sit deep
// (src/main/java/…) it tells its files apart by little.

// Source files only: a changelog, a README or a test at the root is no
// module's main file.

// depthPrior lifts a source file × (1 + boost / (1 + its directories'
// count)).
func (fc *fileCand) depthPrior(boost float64) {
	if fc.info == nil || boost <= 0 || fc.info.test || fc.info.aux || fc.info.prose {
		return
	}
	depth := strings.Count(fc.info.path, "/")
	fc.applyPrior(true, round(1+boost/float64(1+depth)), "near the root of the tree")
}
