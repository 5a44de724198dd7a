// Client documents of a merchant's admin screen, as a Relay app writes them: the template list
// pages with @connection (couponTemplates), a template card refetches itself through node(id).
// relay-compiler only reads the graphql tags; nothing here runs.
/* global graphql */

export const templatesPageQuery = graphql`
  query templatesPageQuery($count: Int = 20, $cursor: String, $filter: CouponTemplateFilter) {
    ...templatesList_query @arguments(count: $count, cursor: $cursor, filter: $filter)
  }
`;

export const templatesList = graphql`
  fragment templatesList_query on Query
  @refetchable(queryName: "templatesListPaginationQuery")
  @argumentDefinitions(
    count: { type: "Int", defaultValue: 20 }
    cursor: { type: "String" }
    filter: { type: "CouponTemplateFilter" }
  ) {
    couponTemplates(first: $count, after: $cursor, filter: $filter)
      @connection(key: "templatesList_couponTemplates", filters: ["filter"]) {
      totalCount
      edges {
        node {
          ...templatesCard_template
        }
      }
    }
  }
`;

export const templatesCard = graphql`
  fragment templatesCard_template on CouponTemplate
  @refetchable(queryName: "templatesCardRefetchQuery") {
    id
    name
    status
    stock
    totalStock
    validEndTime
  }
`;

export const templatesStockMutation = graphql`
  mutation templatesStockMutation($input: IncreaseStockInput!) {
    increaseCouponTemplateStock(input: $input) {
      template {
        ...templatesCard_template
      }
      userErrors {
        code
        field
        message
      }
    }
  }
`;
