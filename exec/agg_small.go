package exec

// Few groups (TPC-H Q1's four, a GROUP BY of flags or codes): neighbouring
// rows mostly share a group, so adding each row into its group's state
// in place makes every add wait on the store of the one before it (a
// chain through memory of several cycles a row). The folds below add into
// four interleaved copies of the groups' sums on the stack, row j into
// copy j%4, which makes four independent chains, and add the copies into
// the state once per batch.

// smallGroups is the group count up to which the folds below serve.
const smallGroups = 16

// sumSmall adds vals (at the rows sel, nil: every row in order) into
// lane[gids[j]] for every j and returns the set of groups that had a
// row (bit g). Every gid is below len(lane), at most smallGroups; the
// caller has checked that the sums cannot overflow (uncheckedRoom).
func sumSmall(lane []int64, gids []uint32, vals []int64, sel []int64) uint32 {
	var part [4][smallGroups]int64
	var m0, m1, m2, m3 uint32
	const mask = smallGroups - 1
	n := len(gids)
	j := 0
	if sel == nil {
		vals = vals[:n]
		for ; j+4 <= n; j += 4 {
			g0, g1, g2, g3 := gids[j]&mask, gids[j+1]&mask, gids[j+2]&mask, gids[j+3]&mask
			part[0][g0] += vals[j]
			part[1][g1] += vals[j+1]
			part[2][g2] += vals[j+2]
			part[3][g3] += vals[j+3]
			m0, m1, m2, m3 = m0|1<<g0, m1|1<<g1, m2|1<<g2, m3|1<<g3
		}
		for ; j < n; j++ {
			g := gids[j] & mask
			part[0][g] += vals[j]
			m0 |= 1 << g
		}
	} else {
		sel = sel[:n]
		for ; j+4 <= n; j += 4 {
			g0, g1, g2, g3 := gids[j]&mask, gids[j+1]&mask, gids[j+2]&mask, gids[j+3]&mask
			part[0][g0] += vals[sel[j]]
			part[1][g1] += vals[sel[j+1]]
			part[2][g2] += vals[sel[j+2]]
			part[3][g3] += vals[sel[j+3]]
			m0, m1, m2, m3 = m0|1<<g0, m1|1<<g1, m2|1<<g2, m3|1<<g3
		}
		for ; j < n; j++ {
			g := gids[j] & mask
			part[0][g] += vals[sel[j]]
			m0 |= 1 << g
		}
	}
	for g := range lane {
		lane[g] += part[0][g] + part[1][g] + part[2][g] + part[3][g]
	}
	return m0 | m1 | m2 | m3
}

// countSmall adds each group's number of rows in gids to c[g]. Every gid
// is below len(c), at most smallGroups.
func countSmall(c []int64, gids []uint32) {
	part := countParts(gids)
	for g := range c {
		c[g] += part[g]
	}
}

// countParts counts the rows of every group in gids (each below
// smallGroups).
func countParts(gids []uint32) [smallGroups]int64 {
	var part [4][smallGroups]int64
	const mask = smallGroups - 1
	n := len(gids)
	j := 0
	for ; j+4 <= n; j += 4 {
		part[0][gids[j]&mask]++
		part[1][gids[j+1]&mask]++
		part[2][gids[j+2]&mask]++
		part[3][gids[j+3]&mask]++
	}
	for ; j < n; j++ {
		part[0][gids[j]&mask]++
	}
	var out [smallGroups]int64
	for g := range out {
		out[g] = part[0][g] + part[1][g] + part[2][g] + part[3][g]
	}
	return out
}

// batchCounts shares one batch's per-group row counts among the
// COUNT(*)s and AVGs of an aggregate (Q1 has one and three), which would
// otherwise each count them. consume clears it for every batch; the
// counts are also tied to the gids slice they came from (its first
// element and length), so a call with other gids counts afresh.
type batchCounts struct {
	ok    bool
	first *uint32
	n     int
	c     [smallGroups]int64
}

// add adds each group's number of rows in gids to c[g], as countSmall;
// b may be nil.
func (b *batchCounts) add(c []int64, gids []uint32) {
	if b == nil || len(gids) == 0 {
		countSmall(c, gids)
		return
	}
	if !b.ok || b.first != &gids[0] || b.n != len(gids) {
		b.c, b.ok, b.first, b.n = countParts(gids), true, &gids[0], len(gids)
	}
	for g := range c {
		c[g] += b.c[g]
	}
}
