module tprog

go 1.26
