package mysqlwire

import (
	"fmt"
	"time"
)

// comStatistics is COM_STATISTICS (mysql_stat(), the mariadb CLI's
// `status`). vitess has no handler hook for it and logs an ERROR line per
// call, so the guard answers it.
const comStatistics = 0x09

// statistics is the COM_STATISTICS reply: MySQL sends a bare string (no
// OK/ERR header) in this layout, and the CLI splits it at the first space
// after "Uptime:" to print the uptime in words.
func (s *Server) statistics() string {
	up := time.Since(s.started)
	secs := int64(up / time.Second)
	q := s.questions.Load()
	avg := 0.0
	if up > 0 {
		avg = float64(q) / up.Seconds()
	}
	return fmt.Sprintf("Uptime: %d  Threads: %d  Questions: %d  Slow queries: 0  Opens: 0  Flush tables: 0  Open tables: 0  Queries per second avg: %.3f",
		secs, s.open.Load(), q, avg)
}
