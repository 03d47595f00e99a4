package proto

//go:generate bash gen.sh
