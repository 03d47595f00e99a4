package sql

func (k SetOpKind) String() string {
	if int(k) < len(setOpNames) {
		return setOpNames[k]
	}
	return "SetOpKind(?)"
}

var joinKindNames = [...]string{
	InnerJoin: "INNER JOIN", LeftJoin: "LEFT JOIN", RightJoin: "RIGHT JOIN", FullJoin: "FULL JOIN",
	CrossJoin: "CROSS JOIN", CommaJoin: "COMMA JOIN", LeftSemiJoin: "LEFT SEMI JOIN",
	LeftAntiJoin: "LEFT ANTI JOIN", RightSemiJoin: "RIGHT SEMI JOIN", RightAntiJoin: "RIGHT ANTI JOIN",
}

func (k JoinKind) String() string {
	if int(k) < len(joinKindNames) {
		return joinKindNames[k]
	}
	return "JoinKind(?)"
}

var litKindNames = [...]string{
	LitNull: "NULL", LitBool: "BOOL", LitInt: "INT", LitDecimal: "DECIMAL", LitFloat: "FLOAT",
	LitString: "STRING", LitHex: "HEX", LitDate: "DATE", LitDatetime: "DATETIME",
}

func (k LitKind) String() string {
	if int(k) < len(litKindNames) {
		return litKindNames[k]
	}
	return "LitKind(?)"
}

func (k ShowKind) String() string {
	if int(k) < len(showNames) {
		return "SHOW " + showNames[k]
	}
	return "ShowKind(?)"
}

var scopeKindNames = [...]string{ScopeNone: "NONE", ScopeSession: "SESSION", ScopeGlobal: "GLOBAL", ScopeUser: "USER"}

func (s VarScope) String() string {
	if int(s) < len(scopeKindNames) {
		return scopeKindNames[s]
	}
	return "VarScope(?)"
}

var objKindNames = [...]string{ObjCatalog: "CATALOG", ObjDatabase: "DATABASE", ObjTable: "TABLE", ObjView: "VIEW"}

func (k ObjectKind) String() string {
	if int(k) < len(objKindNames) {
		return objKindNames[k]
	}
	return "ObjectKind(?)"
}

func enumName(names []string, i int, typ string) string {
	if i < len(names) && names[i] != "" {
		return names[i]
	}
	return typ + "(?)"
}

func (n NullsOrder) String() string {
	return enumName([]string{"DEFAULT", "NULLS FIRST", "NULLS LAST"}, int(n), "NullsOrder")
}

func (n Nullability) String() string {
	return enumName([]string{"UNSPECIFIED", "NULL", "NOT NULL"}, int(n), "Nullability")
}

func (k KeysKind) String() string { return enumName(keysNames[:], int(k), "KeysKind") }

func (a AlterCatalogAction) String() string {
	return enumName([]string{"SET PROPERTIES", "RENAME", "MODIFY COMMENT"}, int(a), "AlterCatalogAction")
}

func (l ExplainLevel) String() string {
	return enumName([]string{"NORMAL", "VERBOSE", "GRAPH", "TREE"}, int(l), "ExplainLevel")
}

func (k TxnKind) String() string { return enumName(txnNames[:], int(k), "TxnKind") }

func (u FrameUnit) String() string { return enumName([]string{"ROWS", "RANGE"}, int(u), "FrameUnit") }

func (k BoundKind) String() string {
	return enumName([]string{"UNBOUNDED PRECEDING", "PRECEDING", "CURRENT ROW", "FOLLOWING", "UNBOUNDED FOLLOWING"}, int(k), "BoundKind")
}

var asOfNames = [...]string{AsOfNone: "NONE", AsOfVersion: "VERSION", AsOfTag: "TAG", AsOfTime: "TIME"}

func (k AsOfKind) String() string {
	if int(k) < len(asOfNames) {
		return asOfNames[k]
	}
	return "AsOfKind(?)"
}
