package tpformat

import (
	"fmt"
	"strconv"
	"strings"
)

// evalConst evaluates an integer constant expression of a print fmt, such
// as "((((0x00000000 | 0x00000001 | 0x00000002) + 1) << 1) - 1)", with C
// precedence for | ^ & << >> + - * / % and unary - ~ !.
func evalConst(s string) (int64, error) {
	p := &exprParser{s: s}
	v, err := p.or()
	if err != nil {
		return 0, err
	}
	p.space()
	if p.i != len(p.s) {
		return 0, fmt.Errorf("constant expression %q: trailing %q", s, p.s[p.i:])
	}
	return v, nil
}

type exprParser struct {
	s string
	i int
}

func (p *exprParser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
		p.i++
	}
}

// op consumes tok when it is next (and, for single-char tokens, not the
// start of a doubled operator such as "||" or "<<").
func (p *exprParser) op(tok string) bool {
	p.space()
	if !strings.HasPrefix(p.s[p.i:], tok) {
		return false
	}
	if len(tok) == 1 && p.i+1 < len(p.s) && p.s[p.i+1] == tok[0] && (tok == "|" || tok == "&") {
		return false
	}
	p.i += len(tok)
	return true
}

func (p *exprParser) or() (int64, error) {
	v, err := p.xor()
	for err == nil && p.op("|") {
		var r int64
		r, err = p.xor()
		v |= r
	}
	return v, err
}

func (p *exprParser) xor() (int64, error) {
	v, err := p.and()
	for err == nil && p.op("^") {
		var r int64
		r, err = p.and()
		v ^= r
	}
	return v, err
}

func (p *exprParser) and() (int64, error) {
	v, err := p.shift()
	for err == nil && p.op("&") {
		var r int64
		r, err = p.shift()
		v &= r
	}
	return v, err
}

func (p *exprParser) shift() (int64, error) {
	v, err := p.add()
	for err == nil {
		var r int64
		if p.op("<<") {
			r, err = p.add()
			if r < 0 || r > 63 {
				return 0, fmt.Errorf("shift by %d", r)
			}
			v <<= uint(r)
		} else if p.op(">>") {
			r, err = p.add()
			if r < 0 || r > 63 {
				return 0, fmt.Errorf("shift by %d", r)
			}
			v >>= uint(r)
		} else {
			break
		}
	}
	return v, err
}

func (p *exprParser) add() (int64, error) {
	v, err := p.mul()
	for err == nil {
		var r int64
		if p.op("+") {
			r, err = p.mul()
			v += r
		} else if p.op("-") {
			r, err = p.mul()
			v -= r
		} else {
			break
		}
	}
	return v, err
}

func (p *exprParser) mul() (int64, error) {
	v, err := p.unary()
	for err == nil {
		var r int64
		if p.op("*") {
			r, err = p.unary()
			v *= r
		} else if p.op("/") || p.op("%") {
			isDiv := p.s[p.i-1] == '/'
			r, err = p.unary()
			if r == 0 {
				return 0, fmt.Errorf("division by zero")
			}
			if isDiv {
				v /= r
			} else {
				v %= r
			}
		} else {
			break
		}
	}
	return v, err
}

func (p *exprParser) unary() (int64, error) {
	switch {
	case p.op("-"):
		v, err := p.unary()
		return -v, err
	case p.op("~"):
		v, err := p.unary()
		return ^v, err
	case p.op("!"):
		v, err := p.unary()
		if v == 0 {
			return 1, err
		}
		return 0, err
	case p.op("("):
		v, err := p.or()
		if err != nil {
			return 0, err
		}
		if !p.op(")") {
			return 0, fmt.Errorf("constant expression %q: missing ')'", p.s)
		}
		return v, nil
	}
	p.space()
	j := p.i
	for j < len(p.s) && (isAlnum(p.s[j])) {
		j++
	}
	if j == p.i {
		return 0, fmt.Errorf("constant expression %q: number expected at %d", p.s, p.i)
	}
	lit := strings.TrimRight(p.s[p.i:j], "uUlL")
	p.i = j
	v, err := strconv.ParseUint(lit, 0, 64)
	if err != nil {
		return 0, fmt.Errorf("constant expression: bad number %q", lit)
	}
	return int64(v), nil
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}
