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
