package grpctarget

import (
	"context"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

func addQuickPizza(h map[string]any) {
	h["quickpizza.GRPC/Status"] = unaryFunc(func(_ context.Context, _, out *dynamicpb.Message) error {
		out.Set(field(out, "ready"), protoreflect.ValueOfBool(true))
		return nil
	})
	h["quickpizza.GRPC/RatePizza"] = unaryFunc(ratePizza)
}

// ratePizza gives one to five stars: one per ingredient, one more for a named dough.
func ratePizza(_ context.Context, in, out *dynamicpb.Message) error {
	stars := int32(in.Get(field(in, "ingredients")).List().Len())
	if in.Get(field(in, "dough")).String() != "" {
		stars++
	}
	out.Set(field(out, "stars_rating"), protoreflect.ValueOfInt32(min(max(stars, 1), 5)))
	return nil
}
