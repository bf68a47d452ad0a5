package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/traceview/traceview/trace"
	_ "github.com/traceview/traceview/trace/formats"
)

// usageError marks errors in the command line itself (exit code 2).
type usageError struct{ error }

func usageErrorf(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// statusError carries an exit code of its own (record passes on its
// command's status, as perf record does).
type statusError struct {
	error
	code int
}

func exitCode(err error) int {
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	var s statusError
	if errors.As(err, &s) && s.code > 0 && s.code < 256 {
		return s.code
	}
	return 1
}

// Subcommands register themselves from init (one file per subcommand) so
// that adding a command touches no shared file.
var (
	subMu   sync.Mutex
	subCmds []func() *cobra.Command
)

func addCommand(f func() *cobra.Command) {
	subMu.Lock()
	defer subMu.Unlock()
	subCmds = append(subCmds, f)
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "traceview",
		Short:         "Analyze, capture and replay Linux scheduler traces",
		Long:          helpText("root"),
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       "set below", // enables --version
	}
	root.SetVersionTemplate(versionText(debug.ReadBuildInfo()))
	root.PersistentPreRunE = func(c *cobra.Command, args []string) error {
		if err := checkInputOnce(c); err != nil {
			return err
		}
		if readOptions.Decoders < -1 {
			return usageErrorf("%s: --decoders %d: want -1 (none), 0 (from the CPU count) or a number of goroutines", subcommandName(c), readOptions.Decoders)
		}
		return defaultInput(c, args, ".")
	}
	readOptions = trace.ReadOptions{}
	verbose = false
	root.PersistentFlags().BoolVarP(&verbose, "verbose", "v", false,
		"print every warning on its own line (by default one summary line per input; -o json always holds them all)")
	root.PersistentFlags().BoolVar(&readOptions.Lenient, "lenient", false,
		"count malformed lines of text traces and broken trace.dat pages as warnings instead of failing (a page's rest is skipped, its CPU unobserved until the next page)")
	root.PersistentFlags().IntVar(&readOptions.Decoders, "decoders", 0,
		"goroutines decoding a perf.data file ahead of the reader (0: from the CPU count, none below 4; -1: none)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		err = plainNumberError(err)
		if c == c.Root() {
			return usageError{fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
		}
		return usageError{fmt.Errorf("%s: %w (see '%s --help')", subcommandName(c), err, c.CommandPath())}
	})
	subMu.Lock()
	fs := append([]func() *cobra.Command(nil), subCmds...)
	subMu.Unlock()
	cmds := make([]*cobra.Command, 0, len(fs))
	for _, f := range fs {
		cmds = append(cmds, f())
	}
	for _, c := range cmds {
		c.Args = usageArgs(c.Args)
		if f := c.Flags().Lookup("input"); f != nil {
			f.Value = &onceInput{flagValue: f.Value}
		}
	}
	sort.Slice(cmds, func(i, j int) bool { return cmds[i].Name() < cmds[j].Name() })
	root.AddCommand(cmds...)
	return root
}

// execute runs root with args. An unknown subcommand is a bad command line:
// a one-line usage error (exit 2) with cobra's suggestions, where cobra's
// own error exits 1 over several lines.
func execute(root *cobra.Command, args []string) error {
	root.InitDefaultHelpCmd() // as Execute does, so that Find knows them
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find(args); err != nil && c == root {
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				continue
			}
			hint := ""
			if s := root.SuggestionsFor(a); len(s) > 0 {
				hint = "did you mean " + strings.Join(s, " or ") + "? "
			}
			return usageErrorf("unknown command %q (%ssee 'traceview --help')", a, hint)
		}
	}
	root.SetArgs(args)
	if c, _, err := root.Find(args); err == nil && c != nil && interruptible[c.Name()] {
		defer catchReadInterrupt()()
		err := root.Execute()
		if readInterrupted() {
			err = interruptedError(c.Name(), err)
		}
		return err
	}
	return root.Execute()
}

// usageArgs wraps a command's argument check so that wrong arguments are a
// usage error (exit 2) in one line, pointing to -i when the command reads
// its trace from that flag (cobra's own message for a stray argument is
// "unknown command").
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	if check == nil {
		return nil
	}
	return func(c *cobra.Command, args []string) error {
		err := check(c, args)
		var u usageError
		switch {
		case err == nil || errors.As(err, &u):
			return err
		case c.Flags().Lookup("input") != nil && len(args) == 1 && check(c, nil) == nil && !c.Flags().Changed("input"):
			// The trace as an argument, as latency and replay take it
			// (new-user pass 120 F4: stats, timehist and info refused
			// it): the same as -i FILE.
			if err := c.Flags().Set("input", args[0]); err != nil {
				return usageErrorf("%s: %v", subcommandName(c), err)
			}
			return nil
		case c.Flags().Lookup("input") != nil && len(args) > 0 && check(c, args[:1]) != nil:
			if len(args) == 1 {
				return usageErrorf("%s: unexpected argument %q beside -i: give the trace once (see '%s --help')",
					subcommandName(c), args[0], c.CommandPath())
			}
			return usageErrorf("%s: %d arguments: it reads one trace (-i FILE, or the file as its argument); latency reads several, and a record --rotate series as one (see '%s --help')",
				subcommandName(c), len(args), c.CommandPath())
		}
		return usageErrorf("%s: %v (see '%s --help')", subcommandName(c), err, c.CommandPath())
	}
}

// flagValue is pflag.Value, the value behind a flag.
type flagValue interface {
	String() string
	Set(string) error
	Type() string
}

// onceInput is the value of a command's -i flag: it keeps every value the
// command line gave, so that a repeated -i, which pflag would silently
// reduce to the last, is refused (checkInputOnce) instead.
type onceInput struct {
	flagValue
	given []string
}

func (v *onceInput) Set(s string) error {
	v.given = append(v.given, s)
	return v.flagValue.Set(s)
}

// checkInputOnce refuses a command line that gives -i more than once
// (-i a -i b read only b): every command reads one trace from -i; latency
// takes several as arguments.
func checkInputOnce(c *cobra.Command) error {
	f := c.Flags().Lookup("input")
	if f == nil {
		return nil
	}
	v, ok := f.Value.(*onceInput)
	if !ok || len(v.given) < 2 {
		return nil
	}
	hint := ""
	if c.Name() == "latency" {
		hint = fmt.Sprintf("; to read several, give them as arguments (traceview latency %s)", strings.Join(v.given, " "))
	}
	return usageErrorf("%s: -i given %d times (%s): -i names one trace%s", subcommandName(c), len(v.given), strings.Join(v.given, ", "), hint)
}

// subcommandName is c's command path without the program name ("latency"),
// the prefix of its errors: main prints them after "traceview: ".
func subcommandName(c *cobra.Command) string {
	return strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" ")
}

// inputUsage is the help of the -i flag of the commands that read a trace.
// defaultTrace is the trace a command reads without -i, as perf does
// (then the newest *.tv in the directory, see defaultInput).
const defaultTrace = "perf.data"

const inputUsage = "trace file to read (any format, gzip or zstd compressed too; - for stdin); without -i: perf.data, else the newest *.tv here"

// defaultInput picks the trace a command with an -i flag reads when -i is
// not given (nor a trace argument, for replay): perf.data in dir, as perf
// does, else the newest *.tv there (what 'traceview record' writes, by
// modification time), and says on stderr which. With neither it leaves
// perf.data, whose open error points to -i.
func defaultInput(c *cobra.Command, args []string, dir string) error {
	f := c.Flags().Lookup("input")
	if f == nil || f.Changed || len(args) > 0 || c.Annotations[noDefaultInput] != "" {
		return nil
	}
	name := defaultTrace
	why := "no -i given"
	if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.IsDir() {
		tv, err := newestTV(dir)
		if err != nil || tv == "" {
			return nil
		}
		name, why = tv, "no -i given and no perf.data here: the newest *.tv"
	}
	fmt.Fprintf(c.ErrOrStderr(), "traceview: reading %s (%s)\n", name, why)
	return c.Flags().Set("input", filepath.Join(dir, name))
}

// noDefaultInput is the annotation of a command whose -i has no default
// (convert: its input is named, never guessed, as its output is).
const noDefaultInput = "traceview/no-default-input"

// newestTV returns the name of the most recently modified regular *.tv
// file in dir ("" when none; ties go to the name last in byte order).
func newestTV(dir string) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", err
	}
	var best string
	var bestTime time.Time
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".tv") || !e.Type().IsRegular() {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		if t := info.ModTime(); best == "" || t.After(bestTime) || (t.Equal(bestTime) && e.Name() > best) {
			best, bestTime = e.Name(), t
		}
	}
	return best, nil
}

// readOptions are the readers' options of this run's command line
// (--lenient), passed to every Open; newRootCmd resets them.
var readOptions trace.ReadOptions

// openInput opens a trace of any supported format ("-" for stdin) with the
// command line's readOptions. The error says which file and why in one line.
func openInput(path string) (trace.Source, error) {
	if path == "" {
		path = defaultTrace
	}
	src, err := readOptions.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &noTraceError{path: path}
		}
		return nil, err
	}
	return watchCPUs(src), nil
}

// noTraceError is openInput's error for a trace path that does not exist.
// Its hint points to -i, unless positional (set by argTrace) says the
// command takes the trace as an argument.
type noTraceError struct {
	path       string
	positional bool
}

func (e *noTraceError) Error() string {
	if isPattern(e.path) && !e.positional {
		// A glob the shell did not expand (quoted, or matching nothing):
		// -i takes one trace.
		return fmt.Sprintf("%s: no such file: -i takes one trace, not a pattern (latency and compare read several: traceview latency '%s')", e.path, e.path)
	}
	if e.positional {
		return fmt.Sprintf("%s: no such file (see 'traceview formats' for the traces traceview reads)", e.path)
	}
	return fmt.Sprintf("%s: no such file (give a trace with -i FILE; see 'traceview formats')", e.path)
}

func (e *noTraceError) Unwrap() error { return os.ErrNotExist }

// argTrace adapts openInput's error for a command that takes its trace as
// a positional argument (convert, compare): no "-i FILE" hint.
func argTrace(err error) error {
	var e *noTraceError
	if errors.As(err, &e) {
		e.positional = true
	}
	return err
}

// readFailed prints the reader's counted warnings (m) to the command's
// stderr and returns err: a command that fails after reading shows first
// what the reader met (a damaged block, a truncated file, lost events),
// which is often why it failed, then its one-line error. They are printed
// in full even without -v: there is no answer for them to bury, and the one
// that explains the failure must not hide in a summary.
func readFailed(cmd *cobra.Command, input string, m *trace.Meta, err error) error {
	if input == "" {
		input = defaultTrace
	}
	printAllWarnings(cmd.ErrOrStderr(), input, m)
	return err
}

// printAllWarnings writes a source's lost windows and counted warnings to
// w, one line each, -v or not; a reader's warning names the file name
// (namedWarning; "" keeps the reader's format name).
func printAllWarnings(w io.Writer, name string, m *trace.Meta) {
	for _, wn := range metaWarnings(m) {
		fmt.Fprintf(w, "warning: %s\n", namedWarning(name, "", wn))
	}
}

// strconvTail matches the strconv error pflag appends to a number flag's
// error ("invalid argument "500ms" for "--series" flag: strconv.ParseInt:
// parsing "500ms": invalid syntax").
var strconvTail = regexp.MustCompile(`: strconv\.Parse(Int|Uint|Float): parsing "(?:[^"\\]|\\.)*": (invalid syntax|value out of range)$`)

// plainNumberError rewrites pflag's error for a number flag given
// something else in the user's terms: "want a whole number" (or "a
// number"), "out of range", instead of Go's strconv message.
func plainNumberError(err error) error {
	msg := err.Error()
	m := strconvTail.FindStringSubmatchIndex(msg)
	if m == nil {
		return err
	}
	what := "want a whole number"
	if msg[m[2]:m[3]] == "Float" {
		what = "want a number"
	}
	if msg[m[4]:m[5]] == "value out of range" {
		what = "the number is out of range"
	}
	return errors.New(msg[:m[0]] + ": " + what)
}
