package expr

// MySQL's day numbers and week numbering, which Doris follows: WEEK,
// YEARWEEK, TO_DAYS and the %U %u %V %v %X %x specifiers of DATE_FORMAT are
// all defined by these two algorithms, including their quirks (year 0 has
// no 29 February in day numbers, so 0000-01-01 is day 1).

// Bits of a week behaviour (MySQL's week_mode).
const (
	weekMondayFirst  = 1 // weeks start on Monday, else Sunday
	weekYear         = 2 // weeks 0 and 53 belong to the adjacent year: 1..53
	weekFirstWeekday = 4 // week 1 holds the first start day, else the first week with 4+ days
)

// dayNumber is MySQL's calc_daynr: days since 0000-00-00.
func dayNumber(year, month, day int) int64 {
	if year == 0 && month == 0 {
		return 0
	}
	y := int64(year)
	delsum := 365*y + 31*int64(month-1) + int64(day)
	if month <= 2 {
		y--
	} else {
		delsum -= int64(month*4+23) / 10
	}
	// Go's / truncates toward zero as C's does, which year -1 relies on.
	temp := ((y/100 + 1) * 3) / 4
	return delsum + y/4 - temp
}

func daysInYear(y int) int64 {
	if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
		return 366
	}
	return 365
}

// weekdayOf is MySQL's calc_weekday: 0 is Monday, or Sunday when
// sundayFirst.
func weekdayOf(daynr int64, sundayFirst bool) int64 {
	s := int64(0)
	if sundayFirst {
		s = 1
	}
	return (daynr + 5 + s) % 7
}

// calcWeek is MySQL's calc_week: the week number of a date under a week
// behaviour, and the year that week belongs to.
func calcWeek(year, month, day int, behaviour int) (int, int) {
	daynr := dayNumber(year, month, day)
	firstDaynr := dayNumber(year, 1, 1)
	mondayFirst := behaviour&weekMondayFirst != 0
	wYear := behaviour&weekYear != 0
	firstWeekday := behaviour&weekFirstWeekday != 0
	weekday := weekdayOf(firstDaynr, !mondayFirst)
	y := year
	if month == 1 && int64(day) <= 7-weekday {
		if !wYear && ((firstWeekday && weekday != 0) || (!firstWeekday && weekday >= 4)) {
			return 0, y
		}
		wYear = true
		y--
		days := daysInYear(y)
		firstDaynr -= days
		weekday = (weekday + 53*7 - days) % 7
	}
	var days int64
	if (firstWeekday && weekday != 0) || (!firstWeekday && weekday >= 4) {
		days = daynr - (firstDaynr + (7 - weekday))
	} else {
		days = daynr - (firstDaynr - weekday)
	}
	if wYear && days >= 52*7 {
		weekday = (weekday + daysInYear(y)) % 7
		if (!firstWeekday && weekday < 4) || (firstWeekday && weekday == 0) {
			return 1, y + 1
		}
	}
	return int(days/7 + 1), y
}

// weekMode turns the mode argument of WEEK/YEARWEEK (0..7) into a
// behaviour: in the modes whose weeks start on Sunday, bit 4 reads inverted.
func weekMode(mode int) int {
	f := mode & 7
	if f&weekMondayFirst == 0 {
		f ^= weekFirstWeekday
	}
	return f
}

// daySuffix is the English ordinal suffix of %D.
func daySuffix(d int) string {
	if d >= 11 && d <= 13 {
		return "th"
	}
	switch d % 10 {
	case 1:
		return "st"
	case 2:
		return "nd"
	case 3:
		return "rd"
	}
	return "th"
}
