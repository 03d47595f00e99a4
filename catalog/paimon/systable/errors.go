package systable

import (
	"errors"

	lake "github.com/inlet-db/inlet/lake/paimon"
)

func isNotFound(err error) bool { return errors.Is(err, lake.ErrNotFound) }
