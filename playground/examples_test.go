package playground

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"coupond/graph/generated"

	"github.com/vektah/gqlparser/v2"
)

// The default document and every operation start.js shows in its comments ("#   mutation …" and
// its "#     " continuation lines) are valid against the schema, and the checkout example is the
// two-party flow: the user locks, the order system confirms with the amount and refunds.
func TestStartScriptExamplesAreValid(t *testing.T) {
	src, err := os.ReadFile("start.js")
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, m := range regexp.MustCompile(`(?m)^\s*"((?:[^"\\]|\\.)*)",$`).FindAllStringSubmatch(string(src), -1) {
		lines = append(lines, strings.ReplaceAll(m[1], `\"`, `"`))
	}
	var doc []string
	var examples []string
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "#   mutation"), strings.HasPrefix(l, "#   query"):
			examples = append(examples, strings.TrimPrefix(l, "#"))
		case strings.HasPrefix(l, "#     ") && len(examples) > 0:
			examples[len(examples)-1] += "\n" + strings.TrimPrefix(l, "#")
		case !strings.HasPrefix(l, "#"):
			doc = append(doc, l)
		}
	}
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	for _, q := range append([]string{strings.Join(doc, "\n")}, examples...) {
		if _, err := gqlparser.LoadQueryWithRules(schema, q, nil); err != nil { // nil: the default rules
			t.Errorf("not valid against schema.graphql: %v\n%s", err, q)
		}
	}
	flow := strings.Join(examples, "\n")
	for _, want := range []string{"lockCoupon", "confirmCouponPayment", "orderAmount", "refundCoupon", "SERVICE token"} {
		if !strings.Contains(flow, want) && !strings.Contains(string(src), want) {
			t.Errorf("the checkout example does not show %s", want)
		}
	}
	if len(examples) != 3 {
		t.Errorf("%d commented examples, want lock, confirm and refund", len(examples))
	}
}
