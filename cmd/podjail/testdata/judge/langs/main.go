// One program per behaviour, chosen by the test's first word (TestJudgeLanguages).
package main

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

func main() {
	var what string
	fmt.Scan(&what)
	switch what {
	case "ac", "wa":
		var a, b int64
		fmt.Scan(&a, &b)
		if what == "wa" {
			b--
		}
		fmt.Println(a + b)
	case "cpus":
		fmt.Println(runtime.GOMAXPROCS(0))
	case "rte":
		panic("asked to fail")
	case "tle":
		x := 0
		for time.Now().UnixNano() != 0 {
			x++
		}
		fmt.Println(x)
	case "mle":
		// A byte a page, as the C hog's memset is quick: under emulation,
		// a loop over every byte took 3 s of processor time to reach the
		// limit and raced the processor ceiling (TLE for an MLE).
		var keep [][]byte
		for {
			b := make([]byte, 1<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			keep = append(keep, b)
		}
	default:
		os.Exit(9)
	}
}
