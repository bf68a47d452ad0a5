package experiments

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// JSONRow is one row of `go run ./bench/experiments/run -json`.
// PublishedEffect is null where the source gives only a direction or a
// range; DirectionMatches says whether the predicted effect points the
// published way (a published "unchanged", within 1 %, included), or for a
// range whether the prediction falls in it; LogSize is ln(predicted) /
// ln(published), null without a published number.
type JSONRow struct {
	Experiment       string   `json:"experiment"`
	Case             string   `json:"case"`
	Metric           string   `json:"metric"`
	PublishedEffect  *float64 `json:"published_effect"`
	PredictedEffect  *float64 `json:"predicted_effect"`
	DirectionMatches *bool    `json:"direction_matches"`
	Headline         bool     `json:"headline"`
	LogSize          *float64 `json:"log_size"`
	Mechanism        string   `json:"mechanism,omitempty"`
}

func num64(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// JSONRows flattens tables into JSONRows, in table order.
func JSONRows(tables []Table) []JSONRow {
	var out []JSONRow
	for _, t := range tables {
		for _, r := range t.Rows {
			jr := JSONRow{Experiment: t.ID, Case: r.Case, Metric: r.Metric, Headline: r.Headline,
				PredictedEffect: num64(r.PredEffect()), LogSize: num64(r.LogSize()), Mechanism: r.Mechanism}
			if !r.absolute() && !math.IsNaN(r.Pub) {
				jr.PublishedEffect = num64(r.PubEffect())
			}
			m := r.Match()
			jr.DirectionMatches = &m
			out = append(out, jr)
		}
	}
	return out
}

// WriteJSON writes JSONRows(tables) as an indented JSON array.
func WriteJSON(w io.Writer, tables []Table) error {
	b, err := json.MarshalIndent(JSONRows(tables), "", "  ")
	if err != nil {
		return fmt.Errorf("experiments: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Summary scores the tables: the headline rows' log sizes by experiment,
// and how many rows with a published direction (or range) match it.
type Summary struct {
	Headline        map[string]float64 // experiment -> LogSize of its headline row (NaN: none)
	Matched, Rows   int
	HeadlinesInBand int // headline log sizes in [0.5, 2]
}

// Summarize computes the Summary of tables.
func Summarize(tables []Table) Summary {
	s := Summary{Headline: map[string]float64{}}
	for _, t := range tables {
		for _, r := range t.Rows {
			if r.Headline {
				s.Headline[t.ID] = r.LogSize()
				if ls := r.LogSize(); ls >= 0.5 && ls <= 2 {
					s.HeadlinesInBand++
				}
			}
			s.Rows++
			if r.Match() {
				s.Matched++
			}
		}
	}
	return s
}

// Markdown renders the summary as the closing section of docs/experiments.md.
func (s Summary) Markdown(tables []Table) string {
	out := "### Summary\n\n| experiment | headline row | log size |\n|---|---|---|\n"
	for _, t := range tables {
		for _, r := range t.Rows {
			if r.Headline {
				ls := "—"
				if v := r.LogSize(); !math.IsNaN(v) {
					ls = fmt.Sprintf("%.2f", v)
				}
				out += fmt.Sprintf("| %s | %s, %s | %s |\n", t.ID, r.Case, r.Metric, ls)
			}
		}
	}
	out += fmt.Sprintf("\n%d of 5 headline sizes in [0.5, 2]; %d of %d rows in the published direction (or range).\n",
		s.HeadlinesInBand, s.Matched, s.Rows)
	return out
}
