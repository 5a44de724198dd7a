package coupon

import (
	"time"

	"coupond/ent/coupontemplate"
)

// Role is what a caller may do: USER claims and spends, MERCHANT administers its shop, PLATFORM
// all shops, SERVICE (the order system, server to server) settles any user's coupons.
type Role string

// Roles.
const (
	RoleUser     Role = "USER"
	RoleMerchant Role = "MERCHANT"
	RolePlatform Role = "PLATFORM"
	RoleService  Role = "SERVICE"
)

// Actor is the authenticated caller of a domain operation.
type Actor struct {
	UserID  int64 // USER, MERCHANT, PLATFORM: the person's id (0 for a SERVICE)
	Role    Role
	Shop    int64  // merchants: the shop they administer (0 for every other role)
	Service string // SERVICE: the service's name, e.g. "orders" (empty for every other role)
	// Expires is when the caller's token stops being valid (zero for actors not made from a token:
	// jobs, tests).
	Expires time.Time
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

// ManagesTemplate reports whether the actor may see and change a template of this source filed
// under this shop (its administration, tasks, log and books): the platform every template, a
// merchant its own shop's SHOP-source templates. A PLATFORM-source template belongs to no shop,
// whatever shop number its row carries.
func (a Actor) ManagesTemplate(source coupontemplate.Source, shop int64) bool {
	if a.Role == RoleMerchant && source != coupontemplate.SourceSHOP {
		return false
	}
	return a.CanSeeShop(shop)
}
