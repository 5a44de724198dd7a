// Starts GraphiQL against the endpoint named in <meta name="graphql-endpoint">, with the headers
// editor open and prefilled with an Authorization header waiting for a token.
(function () {
  "use strict";
  var endpoint = document.querySelector('meta[name="graphql-endpoint"]').content;
  var send = GraphiQL.createFetcher({ url: new URL(endpoint, location.href).href });

  // The prefilled "Bearer " without a token would make the server answer UNAUTHENTICATED; it is
  // dropped, so anonymous queries (and the schema's introspection) work before a token is pasted.
  function fetcher(params, opts) {
    var headers = Object.assign({}, opts && opts.headers);
    Object.keys(headers).forEach(function (name) {
      if (name.toLowerCase() === "authorization" && /^\s*(bearer)?\s*$/i.test(String(headers[name]))) {
        delete headers[name];
      }
    });
    return send(params, Object.assign({}, opts, { headers: headers }));
  }

  var defaultQuery = [
    "# coupond. Paste a bearer token after \"Bearer \"",
    "# in the Headers pane below (scripts/run.sh prints",
    "# a USER, a MERCHANT, a PLATFORM and a SERVICE token).",
    "",
    "query Templates {",
    "  couponTemplates(first: 5) {",
    "    totalCount",
    "    edges { node { id name stock status } }",
    "    pageInfo { hasNextPage endCursor }",
    "  }",
    "}",
    "",
    "# Checkout takes two parties. The user's app holds a",
    "# coupon for an order (USER token; the id from myCoupons):",
    "#   mutation { lockCoupon(input: {couponId: \"<id>\",",
    "#     order: {orderId: \"1\", shopNumber: \"1001\", amount: \"120.00\"}})",
    "#     { settlement { status discount payable } userErrors { code message } } }",
    "# The order system says the order was paid, for the amount",
    "# it charged, or refunded (SERVICE token; a USER is FORBIDDEN):",
    "#   mutation { confirmCouponPayment(input: {orderId: \"1\",",
    "#     couponId: \"<id>\", orderAmount: \"120.00\"})",
    "#     { settlement { status } userErrors { code message } } }",
    "#   mutation { refundCoupon(input: {orderId: \"1\", couponId: \"<id>\"})",
    "#     { settlement { status } userErrors { code message } } }",
    "",
  ].join("\n");

  ReactDOM.createRoot(document.getElementById("graphiql")).render(
    React.createElement(GraphiQL, {
      fetcher: fetcher,
      defaultQuery: defaultQuery,
      defaultHeaders: JSON.stringify({ Authorization: "Bearer " }, null, 2),
      isHeadersEditorEnabled: true,
      shouldPersistHeaders: true,
      defaultEditorToolsVisibility: "headers",
    })
  );
})();
