package main

import (
	"fmt"
	"os"
)

// The BE's scan service arrives with the BE/Union Read work; until then the
// binary says so plainly instead of pretending to serve.
func main() {
	fmt.Fprintln(os.Stderr, "inlet be: the BE scan service is not part of this build yet; the FE runs queries in-process")
	os.Exit(2)
}
