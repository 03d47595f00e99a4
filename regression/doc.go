// Package regression is the SQL regression suite: it starts Inlet processes
// and speaks SQL to them through a MySQL driver, comparing results to expected
// outputs. It imports no Inlet package.
package regression
