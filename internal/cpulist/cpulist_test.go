package cpulist

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
		err  string
	}{
		{"0", []int{0}, ""},
		{"0,2-4", []int{0, 2, 3, 4}, ""},
		{" 1 , 3 ", []int{1, 3}, ""},
		{"0-1,4\n", []int{0, 1, 4}, ""}, // as /sys/devices/system/cpu/online reads
		{"3,1,1-2", []int{1, 2, 3}, ""}, // a set: sorted, duplicates once
		{"8191", []int{8191}, ""},
		{"3-1", nil, `"3-1" is a reversed range (did you mean 1-3?)`},
		{"x", nil, `"x" is not a number`},
		{"1-", nil, `"1-" is not a range`},
		{"-1", nil, `"-1" is outside 0-8191 (negative)`},
		{"0,,1", nil, `"" is not a number`},
		{"8192", nil, `"8192" is outside 0-8191`},
		{"", nil, "empty CPU list"},
		{" \n", nil, "empty CPU list"},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := Parse(c.in)
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if msg != c.err || !cmp.Equal(got, c.want) {
				t.Errorf("Parse(%q) = %v, %q; want %v, %q", c.in, got, msg, c.want, c.err)
			}
		})
	}
}

func TestParseInts(t *testing.T) {
	got, err := ParseInts("0,120-122,5", 0, 139)
	if err != nil || !cmp.Equal(got, []int{0, 120, 121, 122, 5}) {
		t.Errorf("ParseInts = %v, %v; want [0 120 121 122 5] in the order written", got, err)
	}
	if got, err := ParseInts("", 0, 139); got != nil || err != nil {
		t.Errorf(`ParseInts("") = %v, %v; want nil, nil`, got, err)
	}
	if _, err := ParseInts("130-150", 0, 139); err == nil || err.Error() != `"130-150" is outside 0-139` {
		t.Errorf("ParseInts(130-150) error %v", err)
	}
	// A negative number is out of range, not "not a number".
	if _, err := ParseInts("-1", 0, 139); err == nil || err.Error() != `"-1" is outside 0-139 (negative)` {
		t.Errorf("ParseInts(-1) error %v", err)
	}
}

func TestFormat(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{
		{nil, ""},
		{[]int{3}, "3"},
		{[]int{0, 1, 2, 5}, "0-2,5"},
		{[]int{0, 2, 4, 5, 6, 63}, "0,2,4-6,63"},
	} {
		if got := Format(c.in); got != c.want {
			t.Errorf("Format(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}

func ExampleParse() {
	cpus, err := Parse("0-2,5")
	fmt.Println(cpus, err, Format(cpus))
	// Output: [0 1 2 5] <nil> 0-2,5
}
