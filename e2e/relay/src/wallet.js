// Client documents of the shopper's app: the card bag pages with @connection (myCoupons, kept
// per status filter), a claim's redemption and a coupon refetch through node(id).
/* global graphql */

export const walletPageQuery = graphql`
  query walletPageQuery($status: UserCouponStatus, $count: Int = 10, $cursor: String) {
    ...walletList_query @arguments(status: $status, count: $count, cursor: $cursor)
  }
`;

export const walletList = graphql`
  fragment walletList_query on Query
  @refetchable(queryName: "walletListPaginationQuery")
  @argumentDefinitions(
    status: { type: "UserCouponStatus" }
    count: { type: "Int", defaultValue: 10 }
    cursor: { type: "String" }
  ) {
    myCoupons(status: $status, first: $count, after: $cursor)
      @connection(key: "walletList_myCoupons", filters: ["status"]) {
      totalCount
      edges {
        node {
          ...walletCoupon_coupon
        }
      }
    }
  }
`;

export const walletCoupon = graphql`
  fragment walletCoupon_coupon on UserCoupon
  @refetchable(queryName: "walletCouponRefetchQuery") {
    id
    code
    status
    validEndTime
    template {
      name
    }
  }
`;

export const walletRedeemMutation = graphql`
  mutation walletRedeemMutation($input: RedeemCouponInput!) {
    redeemCoupon(input: $input) {
      redemption {
        id
        status
        coupon {
          ...walletCoupon_coupon
        }
      }
      userErrors {
        code
        message
      }
    }
  }
`;

export const walletRedemptionQuery = graphql`
  query walletRedemptionQuery($id: ID!) {
    node(id: $id) {
      ... on Redemption {
        status
        failureReason
      }
    }
  }
`;
