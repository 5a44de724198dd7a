package graph

import (
	"strconv"
	"time"

	"coupond/coupon"
	"coupond/graph/model"
)

// viewerUserID is Viewer.userId: a SERVICE's name, else the person's decimal user id.
func viewerUserID(a *coupon.Actor) string {
	if a.Role == coupon.RoleService {
		return a.Service
	}
	return strconv.FormatInt(a.UserID, 10)
}

// viewerShop is Viewer.shopNumber: a merchant's shop, null for the other roles.
func viewerShop(a *coupon.Actor) *string {
	if a.Role != coupon.RoleMerchant {
		return nil
	}
	s := strconv.FormatInt(a.Shop, 10)
	return &s
}

// viewerExpires is Viewer.expiresAt: the token's exp.
func viewerExpires(a *coupon.Actor) *time.Time {
	t := a.Expires.UTC()
	return &t
}

// viewerSettings is Viewer.settings: the server's settings as the Resolver was given them.
func (r *Resolver) viewerSettings() *model.ServerSettings {
	s := r.Settings
	return &s
}
