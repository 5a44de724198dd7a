package coupon

// Role is what a caller may do: USER claims and spends, MERCHANT administers its shop, PLATFORM all.
type Role string

// Roles.
const (
	RoleUser     Role = "USER"
	RoleMerchant Role = "MERCHANT"
	RolePlatform Role = "PLATFORM"
)

// Actor is the authenticated caller of a domain operation.
type Actor struct {
	UserID int64
	Role   Role
	Shop   int64 // merchants: the shop they administer
}

// CanSeeShop reports whether the actor may see and change data of the given shop.
func (a Actor) CanSeeShop(shop int64) bool {
	switch a.Role {
	case RolePlatform:
		return true
	case RoleMerchant:
		return a.Shop == shop
	}
	return false
}
